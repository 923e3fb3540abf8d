import { describe, expect, it } from 'vitest';
import { descriptionText, renderDescription } from './description.ts';

const render = (s: string) => renderDescription(s)!.value;

describe('the event description', () => {
  it('renders Markdown: paragraphs, emphasis, lists, links, headings under the page title', () => {
    const out = render(
      '# Programme\n\nDoors at **19:00**, *music* at 20:00.\n\n- Bar\n- Cloakroom\n\n[Map](https://maps.example/x)',
    );
    expect(out).toContain('<h2>Programme</h2>');
    expect(out).toContain('<strong>19:00</strong>');
    expect(out).toContain('<em>music</em>');
    expect(out).toContain('<li>Bar</li>');
    expect(out).toContain('<a href="https://maps.example/x">Map</a>');
  });

  it('shows raw HTML as text and drops script links and images', () => {
    const out = render(
      '<script>alert(1)</script> <img src=x onerror=alert(1)>\n\n[x](javascript:alert(1)) ![p](https://evil.example/p.png)',
    );
    expect(out).not.toContain('<script');
    expect(out).not.toContain('<img');
    expect(out).not.toContain('href="javascript');
    expect(out).toContain('&lt;script&gt;');
  });

  it('is absent for an empty description', () => {
    expect(renderDescription(null)).toBeNull();
    expect(renderDescription('  \n')).toBeNull();
  });

  it('reads as plain text for a calendar: marks gone, lists on lines, a link’s address after its text', () => {
    expect(
      descriptionText(
        '# Programme\n\nDoors at **19:00**, *music*\nat 20:00.\n\n- Bar\n- Cloakroom\n\n1. First\n2. Second\n\n[Map](https://maps.example/x) or https://site.example',
      ),
    ).toBe(
      'Programme\n\nDoors at 19:00, music at 20:00.\n\n- Bar\n- Cloakroom\n\n1. First\n2. Second\n\nMap (https://maps.example/x) or https://site.example',
    );
    expect(descriptionText('  ')).toBeNull();
  });
});
