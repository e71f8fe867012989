// What the app shows of a lookalike model before it is used (docs/insight.md): the lift of each decile
// of the ranking, measured on a held-out part of the seed, and the traits that weigh most, in words.
import { z } from 'zod';

export const likeQualityRequestSchema = z.strictObject({ state: z.string(), seed: z.string() });

export interface LikeQuality {
  state: string;
  /** The seed's people in the state. */
  seedCount: number;
  /** Of them, held out of the learning (every fifth in PID order). */
  heldOut: number;
  /** Decile 1 is the tenth of the state ranked most alike. lift: its share of the held-out people × 10 (1 is chance). */
  deciles: Array<{ decile: number; heldOut: number; lift: number }>;
  /** The values that weigh most (weight × how common in the seed), strongest first. */
  traits: Array<{ field: string; label: string; value: string; times: number | null; weight: number; words: string }>;
  ms: number;
}
