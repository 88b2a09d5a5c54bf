const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escapes text for an HTML text node or a quoted attribute value.
 *
 * @internal
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/**
 * A piece of HTML that is already safe: made by the {@link html} tag or {@link Html.trusted}.
 *
 * @remarks
 * The only way text becomes markup. Every other value interpolated into {@link html} is escaped,
 * so a tool name such as `<script>` renders as text.
 *
 * @internal
 */
export class Html {
  readonly value: string;

  private constructor(value: string) {
    this.value = value;
  }

  /** Markup written by this app itself (never data): a constant such as the stylesheet. */
  static trusted(markup: string): Html {
    return new Html(markup);
  }

  /** Joins pieces of HTML. */
  static join(parts: readonly Html[], separator = ''): Html {
    return new Html(parts.map((part) => part.value).join(separator));
  }

  toString(): string {
    return this.value;
  }
}

/** A value the {@link html} tag accepts. @internal */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map((item: HtmlValue) => render(item)).join('');
  return escapeHtml(String(value));
}

/**
 * The template tag every page is written with: interpolated values are escaped unless they are
 * {@link Html}; arrays are joined; null, undefined and false render as nothing.
 *
 * @internal
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]) + (strings[i + 1] ?? '');
  }
  return Html.trusted(out);
}
