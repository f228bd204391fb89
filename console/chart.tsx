import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

// A time series chart (uPlot) of a widget's series, one value a minute; the legend is the
// widget's own table, so uPlot's is off. A chart is made again only when its series change, and
// otherwise given the new values.
export interface Line {
  label: string;
  color: string;
  values: Array<number | null>;
  points: boolean; // a series with gaps: its lone minutes show only as points
}

const HEIGHT = 170;

export function Chart({ times, lines }: { times: number[]; lines: Line[] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const data = (): uPlot.AlignedData => [times, ...lines.map((l) => l.values)];
  const shape = lines.map((l) => `${l.label}\n${l.color}`).join('\n');
  useEffect(() => {
    const el = box.current!;
    const axis = { stroke: '#5b6472', grid: { stroke: '#eceef1' }, ticks: { stroke: '#eceef1' } };
    plot.current = new uPlot(
      {
        width: el.clientWidth,
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
        axes: [axis, { ...axis, size: 56 }],
        series: [{}, ...lines.map((l) => ({ label: l.label, stroke: l.color, width: 1.5, points: { show: l.points, size: 5, fill: l.color } }))],
      },
      data(),
      el,
    );
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
    };
  }, [shape]);
  useEffect(() => plot.current?.setData(data()), [times, lines]);
  return <div class="chart" ref={box} />;
}
