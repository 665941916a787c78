export { flux, type FluxLevel, type FluxState } from './game';
export { solutions } from './solutions';
