import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { App } from './app';

render(<App node={document.body.dataset.node ?? 'A'} />, document.getElementById('app')!);
