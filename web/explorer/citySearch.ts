import { apiJson } from './api.js';
import type { CityFeature, CityPage } from './types.js';

export const cityName = (c: CityFeature): string => `${c.properties.name}, ${c.properties.admin}`;

/**
 * The search box over /api/city/?search=: matches as a list of buttons, the most populous first,
 * each saying whether the city has climate data. ArrowDown moves from the box into the list.
 */
export function citySearch(input: HTMLInputElement, list: HTMLElement, token: () => string | null, pick: (city: CityFeature) => void, fail: (err: unknown) => void): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let controller: AbortController | undefined;

  const search = async (text: string) => {
    controller?.abort();
    const t = token();
    if (text.trim().length < 2 || !t) {
      list.replaceChildren();
      return;
    }
    controller = new AbortController();
    try {
      const answer = await apiJson<CityPage>(`/api/city/?search=${encodeURIComponent(text.trim())}&ordering=-population&page_size=10`, t, controller.signal);
      // The answer to the last words typed may come after the user moved to a match of earlier
      // ones (ArrowDown): the focus stays on that city's button, or at its place in the list,
      // instead of falling to the page with the old buttons (Enter then picked nothing).
      const buttons = [...list.querySelectorAll('button')];
      const focused = buttons.indexOf(document.activeElement as HTMLButtonElement);
      const focusedCity = focused >= 0 ? buttons[focused]!.dataset.city : undefined;
      list.replaceChildren(
        ...answer.features.map((city) => {
          const li = document.createElement('li');
          const button = document.createElement('button');
          button.type = 'button';
          const note = document.createElement('span');
          note.className = 'note';
          note.textContent = city.properties.datasets.length > 0 ? ` (climate data: ${city.properties.datasets.join(', ')})` : ' (no climate data)';
          button.dataset.city = String(city.id);
          button.append(cityName(city), note);
          button.addEventListener('click', () => {
            list.replaceChildren();
            input.value = '';
            pick(city);
          });
          li.append(button);
          return li;
        }),
      );
      if (answer.features.length === 0) {
        const li = document.createElement('li');
        li.textContent = 'No city matches.';
        list.append(li);
      }
      if (focused >= 0) {
        const now = [...list.querySelectorAll('button')];
        (now.find((b) => b.dataset.city === focusedCity) ?? now[Math.min(focused, now.length - 1)] ?? input).focus();
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') fail(err);
    }
  };

  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void search(input.value), 200);
  });
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowDown') {
      list.querySelector('button')?.focus();
      ev.preventDefault();
    }
  });
  list.addEventListener('keydown', (ev) => {
    const buttons = [...list.querySelectorAll('button')];
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (ev.key === 'ArrowDown' && i < buttons.length - 1) buttons[i + 1]!.focus();
    else if (ev.key === 'ArrowUp') (i > 0 ? buttons[i - 1]! : input).focus();
    else if (ev.key === 'Escape') input.focus();
    else return;
    ev.preventDefault();
  });
}
