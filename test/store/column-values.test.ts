import { describe, expect, it } from 'vitest';
import { columnConverters, misfit } from '../../src/store/columns/column-values.js';

describe('date and timestamp columns take only days that exist', () => {
  it.each([
    ['2024-02-29', '2024-02-29'],
    ['2024-01-31', '2024-01-31'],
    ['2024-12-28', '2024-12-28'],
    ['2023-02-29', misfit],
    ['2024-02-30', misfit],
    ['2024-04-31', misfit],
  ])('date %s', (value, expected) => {
    expect(columnConverters.date(value)).toBe(expected);
  });

  it.each([
    // The canonical UTC form is kept as written; any other is written again in it.
    ['2024-01-31T10:00:00.000Z', '2024-01-31T10:00:00.000Z'],
    ['2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.999Z'],
    ['2024-03-09T10:00:00Z', '2024-03-09T10:00:00.000Z'],
    ['2024-03-31T01:00:00+02:00', '2024-03-30T23:00:00.000Z'],
    ['2024-01-30 10:00:00Z', '2024-01-30T10:00:00.000Z'],
    ['2023-02-29T10:00:00.000Z', misfit],
    ['2024-04-31T10:00:00Z', misfit],
    ['2024-02-30T00:30:00+01:00', misfit],
  ])('timestamp %s', (value, expected) => {
    expect(columnConverters.timestamp(value)).toBe(expected);
  });
});

describe('a number column’s companion in cents holds the value in hundredths, exactly', () => {
  it.each([
    [125.5, 12550],
    ['125.50', 12550],
    [1.15, 115],
    [0.1 + 0.2, 30],
    ['8493765.33', 849376533],
    [-12.345, -1235],
    ['0.125', 13],
    [1e-7, 0],
    [42, 4200],
    ['90071992547409.91', 9007199254740991],
    ['90071992547409.92', misfit],
    [1e21, misfit],
    ['n/a', null],
    [{ amount: 1 }, null],
    [null, null],
  ])('%j', (value, expected) => {
    expect(columnConverters.cents(value)).toBe(expected);
  });
});
