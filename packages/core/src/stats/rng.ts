/** Seeded pseudo-random numbers, injected wherever core needs randomness (core never calls Math.random). */

/** Returns a float in [0, 1). */
export type Rng = () => number;

/** mulberry32: small, fast, good enough for resampling; same seed, same sequence. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
