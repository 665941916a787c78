export { push, type PushLevel, type PushState } from './game';
export { solutions } from './solutions';
