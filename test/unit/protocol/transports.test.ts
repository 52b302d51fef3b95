import { DirectTransport, PortTransport, portConnection } from '../../../src/protocol';
import { createPortPair } from './fake-port';
import { transportConformance } from './transport-conformance';

// The same contract, two transports: the in-process one the unit tests use and the Port one the
// extension uses (over an in-memory Port pair that behaves like chrome.runtime.Port).

transportConformance('DirectTransport', (endpoint) => {
  const transport = new DirectTransport(endpoint);
  // DirectTransport has one close for both sides: closing it is also how "the engine went away" is simulated.
  return { transport, closeFromEngine: () => transport.close() };
});

transportConformance('PortTransport over a fake chrome.runtime.Port', (endpoint) => {
  const { ui, engine } = createPortPair('engine');
  endpoint.connect(portConnection(engine));
  const transport = new PortTransport(ui, { validateEvents: true });
  return { transport, closeFromEngine: () => engine.disconnect() };
});

transportConformance(
  'PortTransport over a fake Port that serializes like Chrome (JSON)',
  (endpoint) => {
    const { ui, engine } = createPortPair('engine', 'json');
    endpoint.connect(portConnection(engine));
    return {
      transport: new PortTransport(ui, { validateEvents: true }),
      closeFromEngine: () => engine.disconnect(),
    };
  },
);

transportConformance('PortTransport without event validation', (endpoint) => {
  const { ui, engine } = createPortPair('engine');
  endpoint.connect(portConnection(engine));
  return { transport: new PortTransport(ui), closeFromEngine: () => engine.disconnect() };
});
