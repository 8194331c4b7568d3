// Public surface of the pricing module (see README.md for the rules).
export type { PriceableUsage, Pricer } from './pricer.js';
export { loadPricer, PricesFileError } from './pricer.js';
export { updatePrices, dataPaths } from './datafile.js';
export { renderDescription } from './show.js';
