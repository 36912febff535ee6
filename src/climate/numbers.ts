/**
 * The shortest decimal that reads back as the same float32: the values are stored as float32, and
 * printing them widened to double would show noise digits (279.06402587890625 for 279.064).
 */
export function float32Text(v: number): string {
  for (let p = 6; p < 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(Number(v.toPrecision(9)));
}
