chrome.runtime.onConnect.addListener((port) => { port.postMessage({ hello: 1 }); });
