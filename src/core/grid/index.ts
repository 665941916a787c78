export * from './grid';
export * from './palette';
