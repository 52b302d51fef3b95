/**
 * The guard's own content script, run at document_start in every frame (about:blank and srcdoc
 * frames included), so that its window capture listeners come before any page script's
 * (input-guard.ts). It only installs the guard; the main content script, which answers the
 * service worker, finds it in the same isolated world and arms it.
 */
import { installInputGuard } from './input-guard';

installInputGuard(window);
