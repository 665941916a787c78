export * from './events';
export * from './gridPlayer';
