import { describe, expect, it } from 'vitest';
import { escapeHtml, Html, html } from './Html.js';

describe('html', () => {
  it('escapes every interpolated string', () => {
    const name = '<script>alert("x")</script>&\'';
    expect(html`<td>${name}</td>`.value).toBe('<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</td>');
    expect(html`<a title="${'" onmouseover="x'}">`.value).toBe('<a title="&quot; onmouseover=&quot;x">');
  });
  it('keeps Html pieces, joins arrays and drops null, undefined and false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`${inner}${[html`<br>`, 'a<b']}${null}${undefined}${false}${0}`.value).toBe('<b>&lt;i&gt;</b><br>a&lt;b0');
  });
  it('escapes the five special characters only', () => {
    expect(escapeHtml('a & b < c > d " e \' f ä')).toBe('a &amp; b &lt; c &gt; d &quot; e &#39; f ä');
    expect(Html.join([Html.trusted('<p>'), Html.trusted('</p>')], '\n').value).toBe('<p>\n</p>');
  });
});
