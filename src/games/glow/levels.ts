import type { GlowLevel } from './game';

/** The levels of Glow, tutorial first. README.md says what each one teaches. */
export const levels: readonly GlowLevel[] = [
  // 1. Tutorial: one click in the middle lights the cross.
  { charges: 3, map: `
      .o.
      ooo
      .o.` },
  // 2. A click flips lit lamps dark too: plan clicks whose crosses fit together.
  { charges: 4, map: `
      ooOoO
      ooooo
      ooooo
      OoOoo` },
  // 3. A star lamp flips its whole row and column.
  { charges: 4, map: `
      Ooooo
      OoOoO
      osooO
      Ooooo
      OOooo` },
  // 4. Sealed lamps (thick grey rim) cannot be clicked, only flipped from beside them.
  { charges: 4, map: `
      OxOoX
      xoOoo
      ooXox
      ooXoo` },
  // 5. Gaps stop a star's light: stars and crosses on a split board.
  { charges: 4, map: `
      oO.Oo
      so.Oo
      OSOOS
      Oo.os
      Oo.oO` },
  // 6. Everything: stars, sealed lamps and gaps on a large board.
  { charges: 5, map: `
      oOXooO
      oOooXO
      soo.oO
      XOooso
      Ooo.xo
      ooOOOo` },
];
