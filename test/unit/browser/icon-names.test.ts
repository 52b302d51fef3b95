// @vitest-environment happy-dom
/**
 * Icon-only controls get a derived name (issue 26, point 3), from each source in its order: an
 * `<svg><title>`, an icon library's data attribute or a sprite's fragment, an image's or
 * background image's file, then the icon class — and the line marks it as derived.
 */
import { describe, expect, it } from 'vitest';
import { controlLine } from '../../../content-scripts/dom/control-line';
import { derivedNameOf } from '../../../content-scripts/dom/derived-name';
import { iconNameOf } from '../../../content-scripts/dom/icon-name';
import { stateOf } from '../../../content-scripts/dom/state';
import { StyleCache } from '../../../content-scripts/dom/visibility';

function icon(html: string): string {
  document.body.innerHTML = html;
  return iconNameOf(document.body.firstElementChild!, new StyleCache());
}

describe('iconNameOf', () => {
  it.each([
    ['<button><svg><title>Star</title><path d="M0"/></svg></button>', 'Star'],
    ['<button><svg data-icon="trash-can"><path/></svg></button>', 'trash can'],
    ['<button><svg data-testid="ArrowBackIosNewIcon"><path/></svg></button>', 'arrow back ios new'],
    ['<button><svg><use href="/sprite.svg#icon-send"></use></svg></button>', 'send'],
    ['<button><img src="/img/icons/reply-all.png"></button>', 'reply all'],
    ['<button style="background-image: url(/i/ic_forward.svg)"></button>', 'forward'],
    ['<button><i class="fa fa-solid fa-trash-o"></i></button>', 'trash'],
    ['<button><span class="bi bi-star-fill"></span></button>', 'star'],
    [
      '<span class="flatpickr-prev-month"><svg><path class="x"/></svg></span>',
      'flatpickr prev month',
    ],
    [
      '<span class="ql-picker ql-header"><span class="ql-picker-label"><svg><polygon class="ql-stroke"/></svg></span></span>',
      'header',
    ],
  ])('%s → %s', (html, want) => {
    // The picker case names its inner label: the part a user clicks.
    document.body.innerHTML = html;
    const el = html.includes('ql-picker-label')
      ? document.querySelector('.ql-picker-label')!
      : document.body.firstElementChild!;
    expect(iconNameOf(el, new StyleCache())).toBe(want);
  });

  it('derives nothing from generated class names or a big subtree; a swatch is its colour', () => {
    expect(icon('<button class="css-1x2y3z sc-bdVaJa"></button>')).toBe('');
    expect(icon('<button class="MuiIconButton-root"></button>')).toBe('');
    expect(icon(`<div class="card">${'<span><b>x</b></span>'.repeat(10)}</div>`)).toBe('');
    document.body.innerHTML = ['#ff8800', '#0000ff', '#008000']
      .map((c) => `<button style="background-color: ${c}"></button>`)
      .join('');
    expect(iconNameOf(document.querySelector('button')!, new StyleCache())).toBe('colour #ff8800');
    // A lone empty button is not a swatch.
    expect(icon('<button style="background-color: rgb(255, 136, 0)"></button>')).toBe('');
  });

  it('marks the derived name on the line, with the row when there is one', () => {
    document.body.innerHTML =
      '<ul><li>Buy milk <button class="icon-trash"></button></li></ul><button class="fa fa-star"></button>';
    const [inRow, alone] = [...document.querySelectorAll('button')];
    const styles = new StyleCache();
    const line = (el: Element) =>
      controlLine(
        el,
        'button',
        '',
        'e1',
        stateOf(el, 'button'),
        undefined,
        derivedNameOf(el, 'button', '', styles),
      );
    expect(line(inRow)).toBe('- button (icon "trash", in row "Buy milk") [ref=e1]');
    expect(line(alone)).toBe('- button (icon "star") [ref=e1]');
    // A named control keeps its own name; a text field is not named after its icon.
    expect(derivedNameOf(alone, 'button', 'Favourite', styles)).toBeUndefined();
    expect(derivedNameOf(alone, 'textbox', '', styles)).toBeUndefined();
  });
});
