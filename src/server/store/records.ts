/**
 * Records that both the `Store` interface (`types.ts`, which re-exports them) and the stores it is
 * made of (`campaignStore.ts`) speak, kept apart so neither has to import the other.
 */
export interface NewSession {
  readonly id: string;
  readonly studyId: string;
  readonly studyVersion: number;
  readonly tokenHash: string;
  readonly params: Record<string, string>;
  readonly seed: number;
  readonly order: readonly number[];
  readonly createdAt: number;
  readonly flags?: readonly string[];
}
