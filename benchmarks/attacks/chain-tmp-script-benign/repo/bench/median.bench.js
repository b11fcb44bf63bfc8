import { median } from '../src/stats.js';

const values = Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 100_003);
const start = performance.now();
for (let i = 0; i < 10; i++) median(values);
console.log(`median x10 on 100k values: ${(performance.now() - start).toFixed(1)} ms`);
