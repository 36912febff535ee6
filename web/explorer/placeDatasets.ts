/**
 * Which dataset the view can show for a place. The API answers 404 for a dataset a city has no
 * data in, and each city lists its datasets (/api/city/ `datasets`, in catalog order), so the page
 * never asks for one it lacks.
 */

/** The view's dataset if the place has it, else the place's first; undefined if it has none. */
export function datasetForPlace(wanted: string, has: readonly string[]): string | undefined {
  return has.includes(wanted) ? wanted : has[0];
}

/** "A", "A and B", "A, B and C". */
export function nameList(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * The sentence under the dataset control: which datasets the place has, and, when the view had to
 * leave the one it was on (`from`), that it did and why.
 */
export function placeDatasetsNote(place: string, has: readonly string[], from?: string): string {
  if (has.length === 0) return `${place} has no climate data in this build.`;
  const which = `${place} has data in ${nameList(has)}${has.length === 1 ? ' only' : ''}.`;
  return from && !has.includes(from) ? `${which} It has no ${from} data: showing ${has[0]}.` : which;
}
