/**
 * Number arguments of the command-line scripts, parsed where commander reads them: a bad value stops the command
 * with the option named and the reason, instead of running with NaN.
 */
import { InvalidArgumentError } from 'commander';

/** A parser of a whole number from 1 (to `max` when given); `name` leads the message when given. */
export function positiveInteger(name?: string, max?: number): (value: string) => number {
  const subject = name ? `${name} ` : '';
  return (value) => {
    const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!(n >= 1)) throw new InvalidArgumentError(`${subject}must be a positive integer`);
    if (max !== undefined && n > max) throw new InvalidArgumentError(`${subject}must be between 1 and ${max}`);
    return n;
  };
}

/** A parser of a whole number from 0 (a length that 0 turns off); `name` leads the message when given. */
export function nonNegativeInteger(name?: string): (value: string) => number {
  const subject = name ? `${name} ` : '';
  return (value) => {
    const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!(n >= 0)) throw new InvalidArgumentError(`${subject}must be 0 or a positive integer`);
    return n;
  };
}

/** A parser of a decimal number above 0 (a share of a core, a ratio); `name` leads the message when given. */
export function positiveFraction(name?: string): (value: string) => number {
  const subject = name ? `${name} ` : '';
  return (value) => {
    const n = /^\d*\.?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!(n > 0)) throw new InvalidArgumentError(`${subject}must be a number above 0, e.g. 0.5`);
    return n;
  };
}
