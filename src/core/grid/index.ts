export * from './grid';
