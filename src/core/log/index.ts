export * from './events';
export * from './gridPlayer';
export * from './timeline';
