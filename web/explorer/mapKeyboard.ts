/**
 * The map's city dots as one stop in the Tab order: a composite widget with a roving tabindex, as
 * the WAI-ARIA Authoring Practices describe for listboxes and grids. Only one dot is in the Tab
 * order at a time, so the controls after the map stay a few Tabs from the top, however many
 * cities have data.
 */

export type Arrow = 'ArrowRight' | 'ArrowLeft' | 'ArrowUp' | 'ArrowDown';

/** Whether (dx, dy) points within 45 degrees of the arrow (y grows downwards, as on the screen); each offset but (0, 0) in exactly one. */
function within(arrow: Arrow, dx: number, dy: number): boolean {
  switch (arrow) {
    case 'ArrowRight':
      return dx > 0 && Math.abs(dy) <= dx;
    case 'ArrowLeft':
      return dx < 0 && Math.abs(dy) <= -dx;
    case 'ArrowDown':
      return dy > 0 && Math.abs(dx) < dy;
    case 'ArrowUp':
      return dy < 0 && Math.abs(dx) < -dy;
  }
}

/**
 * The index of the dot nearest to dots[from] in the arrow's direction, or undefined if none lies
 * that way. Dots drawn at the same point are told apart by their order in `dots` (the later one to
 * the east), so that the arrows reach each of them.
 */
export function dotToward(dots: readonly { x: number; y: number }[], from: number, arrow: Arrow): number | undefined {
  const origin = dots[from]!;
  let best: number | undefined;
  let bestDistance = Infinity;
  dots.forEach((d, i) => {
    const dy = d.y - origin.y;
    const dx = d.x - origin.x || (dy === 0 ? (i - from) * 1e-9 : 0);
    if (i === from || !within(arrow, dx, dy)) return;
    const distance = Math.hypot(dx, dy);
    if (distance < bestDistance) {
      best = i;
      bestDistance = distance;
    }
  });
  return best;
}

export interface KeyedDot {
  el: SVGElement;
  x: number;
  y: number;
}

const ARROWS = new Set<string>(['ArrowRight', 'ArrowLeft', 'ArrowUp', 'ArrowDown']);

/**
 * Wires the keys of the dots in `list` (given west to east, each an element of `list`): the arrows
 * move the focus to the nearest dot that way, Home and End to the westernmost and easternmost,
 * Enter or Space picks the focused dot's city. `ring`, drawn above every dot, shows where the
 * keyboard's focus is (a dot can lie under its neighbours). Returns the function that sets the dot
 * Tab enters the map at; the focus leaving the map goes back to it.
 */
export function mapKeyboard(list: SVGElement, dots: readonly KeyedDot[], ring: SVGCircleElement, pick: (index: number) => void): (entry: number) => void {
  if (dots.length === 0) return () => {};
  let entry = 0;
  let stop = 0;
  const index = new Map(dots.map((d, i) => [d.el, i]));
  const setStop = (i: number) => {
    dots[stop]!.el.tabIndex = -1;
    dots[i]!.el.tabIndex = 0;
    stop = i;
  };
  for (const d of dots) d.el.tabIndex = -1;
  setStop(0);

  list.addEventListener('keydown', (ev) => {
    const at = index.get(ev.target as SVGElement);
    if (at === undefined || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    let to: number | undefined = at;
    if (ARROWS.has(ev.key)) to = dotToward(dots, at, ev.key as Arrow);
    else if (ev.key === 'Home') to = 0;
    else if (ev.key === 'End') to = dots.length - 1;
    else if (ev.key === 'Enter' || ev.key === ' ') pick(at);
    else return;
    // Also where no dot lies that way: the arrows and Space would otherwise scroll the page.
    ev.preventDefault();
    if (to === undefined || to === at) return;
    setStop(to);
    dots[to]!.el.focus();
  });
  // Listened to on each dot, not on the listbox: Chromium makes an SVG element with focus listeners
  // focusable, which would put the listbox itself in the Tab order.
  dots.forEach((d, at) => {
    d.el.addEventListener('focus', () => {
      // A click focuses its dot too; the ring is for the keyboard's focus.
      ring.setAttribute('cx', String(d.x));
      ring.setAttribute('cy', String(d.y));
      ring.classList.toggle('shown', d.el.matches(':focus-visible'));
      if (at !== stop) setStop(at);
    });
    d.el.addEventListener('blur', (ev) => {
      ring.classList.remove('shown');
      if (ev.relatedTarget instanceof Node && list.contains(ev.relatedTarget)) return;
      // Not when the window loses the focus: the dot keeps it, and Tab must go on from there.
      if (document.hasFocus()) setStop(entry);
    });
  });
  return (i) => {
    entry = i;
    if (!list.contains(document.activeElement)) setStop(i);
  };
}
