console.debug('keel content script');
