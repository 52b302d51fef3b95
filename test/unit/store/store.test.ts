import 'fake-indexeddb/auto';
import { Store } from '../../../src/store/store';
import { storeConformance } from './store-conformance';

// The Dexie store over fake-indexeddb (a fresh database name per test). The same suite runs in the
// real browser's IndexedDB through the protocol in test/e2e/conformance.test.ts.
storeConformance('Dexie on fake-indexeddb', (name) => Store.open(name));
