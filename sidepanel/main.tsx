import { render } from 'preact';
render(<div>Keel</div>, document.getElementById('app')!);
