export { glow, type GlowLevel, type GlowState } from './game';
export { solutions } from './solutions';
