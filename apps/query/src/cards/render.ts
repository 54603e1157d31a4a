import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import satori from 'satori';

/** What a card shows: a title line, one big number with its words, a line under it, a sparkline. */
export interface CardData {
  /** the site's domain, top left */
  domain: string;
  /** a line above the number, in the accent colour (`Milestone reached`) */
  kicker?: string;
  /** the big number, already written for people (`12,345`, `€1,234`) */
  value: string;
  /** what the number counts (`visitors`) */
  label: string;
  /** under the number (`in the last 7 days`, `up 24% on the 7 days before`) */
  detail: string;
  /** one value per day or hour, drawn as a line; empty for none */
  series: number[];
  theme: 'light' | 'dark';
  /** `#rrggbb` */
  accent: string;
  width: number;
  height: number;
}

const require = createRequire(import.meta.url);
const font = (weight: 400 | 700) =>
  readFileSync(require.resolve(`@fontsource/inter/files/inter-latin-${weight}-normal.woff`));
let fonts: { name: string; data: Buffer; weight: 400 | 700; style: 'normal' }[] | undefined;

type Node = { type: string; props: Record<string, unknown> };
const el = (type: string, style: Record<string, unknown>, ...children: (Node | string)[]): Node => ({
  type,
  props: { style, children: children.length === 1 ? children[0] : children },
});

/** The sparkline as an SVG path over the card's width. */
function sparkline(series: number[], width: number, height: number, accent: string): Node | null {
  if (series.length < 2) return null;
  const max = Math.max(1, ...series);
  const step = width / (series.length - 1);
  const points = series.map(
    (v, i) => `${(i * step).toFixed(1)},${(height - (v / max) * (height - 8) - 4).toFixed(1)}`,
  );
  return {
    type: 'svg',
    props: {
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      children: [
        {
          type: 'path',
          props: {
            d: `M0,${height} L${points.join(' L')} L${width},${height} Z`,
            fill: accent,
            fillOpacity: 0.15,
          },
        },
        {
          type: 'path',
          props: {
            d: `M${points.join(' L')}`,
            fill: 'none',
            stroke: accent,
            strokeWidth: 5,
            strokeLinejoin: 'round',
          },
        },
      ],
    },
  };
}

/** A card as a PNG: laid out by satori (SVG), drawn by resvg. CPU work: run it in the card pool. */
export async function renderCard(data: CardData): Promise<Buffer> {
  fonts ??= [
    { name: 'Inter', data: font(400), weight: 400, style: 'normal' },
    { name: 'Inter', data: font(700), weight: 700, style: 'normal' },
  ];
  const dark = data.theme === 'dark';
  const pad = Math.round(data.width * 0.055);
  const line = sparkline(data.series, data.width - 2 * pad, Math.round(data.height * 0.28), data.accent);
  const number = (above: number) =>
    el(
      'div',
      { display: 'flex', alignItems: 'baseline', marginTop: Math.round(data.height * above) },
      el('div', { display: 'flex', fontSize: Math.round(data.height * 0.19), fontWeight: 700 }, data.value),
      el('div', { display: 'flex', fontSize: Math.round(data.height * 0.07), marginLeft: 24 }, data.label),
    );
  const words = el(
    'div',
    { display: 'flex', fontSize: Math.round(data.height * 0.045), color: dark ? '#9ca3af' : '#4b5563' },
    data.detail,
  );
  const tree = el(
    'div',
    {
      display: 'flex',
      flexDirection: 'column',
      // satori sizes the content box: the padding comes on top of these
      width: data.width - 2 * pad,
      height: data.height - pad - Math.round(pad * 0.7),
      paddingTop: pad,
      paddingLeft: pad,
      paddingRight: pad,
      paddingBottom: Math.round(pad * 0.7),
      background: dark ? '#0b1020' : '#ffffff',
      color: dark ? '#e5e7eb' : '#111827',
      fontFamily: 'Inter',
    },
    el(
      'div',
      {
        display: 'flex',
        justifyContent: 'space-between',
        width: data.width - 2 * pad,
        fontSize: Math.round(data.height * 0.05),
      },
      el('div', { display: 'flex', color: data.accent, fontWeight: 700 }, data.domain),
      el('div', { display: 'flex', color: dark ? '#9ca3af' : '#6b7280' }, 'Footfall'),
    ),
    ...(data.kicker
      ? [
          // a milestone: the words in the middle, a band of its colour under them
          el(
            'div',
            { display: 'flex', flexDirection: 'column', flexGrow: 1, justifyContent: 'center' },
            el(
              'div',
              {
                display: 'flex',
                fontSize: Math.round(data.height * 0.05),
                fontWeight: 700,
                color: data.accent,
                textTransform: 'uppercase',
                letterSpacing: 2,
              },
              data.kicker,
            ),
            number(0.02),
            words,
          ),
          el('div', {
            display: 'flex',
            width: data.width - 2 * pad,
            height: 14,
            backgroundColor: data.accent,
          }),
        ]
      : [
          number(0.06),
          words,
          el('div', { display: 'flex', flexGrow: 1 }),
          ...(line ? [el('div', { display: 'flex', width: data.width - 2 * pad }, line)] : []),
        ]),
  );
  const svg = await satori(tree as Parameters<typeof satori>[0], {
    width: data.width,
    height: data.height,
    fonts,
  });
  return new Resvg(svg, { fitTo: { mode: 'width', value: data.width } }).render().asPng();
}
