export * from './schema';
export * from './markdown';
export * from './shuffle';
export * from './rules';
export * from './summary';
export * from './activeTime';
export * from './actions';
export * from './replayMarks';
