export * from './common';
export * from './items';
export * from './settings';
export * from './ops';
export * from './events';
export * from './transport';
export * from './direct-transport';
export * from './port-transport';
