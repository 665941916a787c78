/** A level: its map and its charges (clicks allowed). */
export interface GlowLevel {
  /**
   * One character per cell: `.` gap, `o`/`O` plain lamp dark/lit, `s`/`S` star lamp dark/lit,
   * `x`/`X` sealed lamp dark/lit.
   */
  readonly map: string;
  readonly charges: number;
}

/** The levels of Glow, tutorial first. README.md says what each one teaches. */
export const levels: readonly GlowLevel[] = [
  // 1. Tutorial: one click in the middle lights the cross.
  {
    charges: 3,
    map: `
      .o.
      ooo
      .o.`,
  },
  // 2. A click flips lit lamps dark too: plan clicks whose crosses fit together.
  {
    charges: 5,
    map: `
      OOOOOO
      ooOOOO
      OooOOO
      oOOOOO
      ooooOO`,
  },
  // 3. A star lamp flips its whole row and column.
  {
    charges: 4,
    map: `
      Ooooo
      OoOoO
      osooO
      Ooooo
      OOooo`,
  },
  // 4. Sealed lamps (thick grey rim) cannot be clicked, only flipped from beside them.
  {
    charges: 4,
    map: `
      OxOoX
      xoOoo
      ooXox
      ooXoo`,
  },
  // 5. Gaps stop a star's light: stars and crosses on a split board.
  {
    charges: 4,
    map: `
      oO.Oo
      so.Oo
      OSOOS
      Oo.os
      Oo.oO`,
  },
  // 6. Everything: stars, sealed lamps and gaps on a large board.
  {
    charges: 5,
    map: `
      oOXooO
      oOooXO
      soo.oO
      XOooso
      Ooo.xo
      ooOOOo`,
  },
];

/**
 * The levels of version glow-0772acacc911, kept so that logs recorded on it still verify (see
 * `retiredGames` in ../index.ts). Its level 2 could be won by chance within 1,000,000 random steps.
 * WARNING: it reuses the current levels that did not change, so editing one of those changes this
 * version too (games.test.ts pins its id).
 */
export const levels0772acacc911: readonly GlowLevel[] = [
  levels[0],
  {
    charges: 4,
    map: `
      ooOoO
      ooooo
      ooooo
      OoOoo`,
  },
  ...levels.slice(2),
];
