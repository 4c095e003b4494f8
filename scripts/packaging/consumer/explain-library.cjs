// A library as `npx nemo-lens explain --require ./explain-library.cjs` loads it: it registers
// its span groups when imported, through the installed package.
'use strict';
const { SpanRegistry } = require('nemo-lens');
SpanRegistry.register('trainer', ['step', 'layer'], { per_step: ['step'] });
