import uPlot from 'uplot';
import { h } from './dom-builder.js';

export interface SeriesSpec {
  label: string;
  values: number[];
  color: string;
}

const PALETTE = ['#2563eb', '#db2777', '#059669', '#d97706'];
export const color = (i: number): string => PALETTE[i % PALETTE.length]!;

/**
 * A line chart of values over time (uPlot: canvas, about 50 KB, draws thousands of points in a
 * few milliseconds). It takes its width from its box and follows it, so it fits a 375 px phone.
 * The figure carries a text summary for screen readers, which cannot read a canvas.
 */
export function timeSeriesChart(title: string, times: number[], series: SeriesSpec[], height = 220): HTMLElement {
  const box = h('div', { class: 'chart-box' });
  const summary = series
    .map((s) => `${s.label}: total ${s.values.reduce((a, b) => a + b, 0)}, peak ${Math.max(0, ...s.values)}`)
    .join('; ');
  const figure = h('figure', { class: 'chart', 'aria-label': `${title}. ${summary}` }, h('figcaption', {}, title), box);
  const opts: uPlot.Options = {
    width: 300,
    height,
    ms: 1,
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true } },
    axes: [{ stroke: '#555' }, { stroke: '#555', size: 48 }],
    series: [
      {},
      ...series.map((s) => ({
        label: s.label,
        stroke: s.color,
        width: 2,
        fill: `${s.color}1a`,
        points: { show: times.length < 60 },
      })),
    ],
  };
  // uPlot needs its box in the document to measure it: draw on the next frame, then follow resizes.
  requestAnimationFrame(() => {
    const width = () => Math.max(200, Math.floor(box.clientWidth));
    const plot = new uPlot({ ...opts, width: width() }, [times, ...series.map((s) => s.values)], box);
    const observer = new ResizeObserver(() => {
      if (!box.isConnected) return observer.disconnect();
      plot.setSize({ width: width(), height });
    });
    observer.observe(box);
  });
  return figure;
}
