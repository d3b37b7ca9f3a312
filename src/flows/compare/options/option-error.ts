/**
 * A refusal of a user's option, keyed by the option it is about and worded in the adapter's spelling of the
 * options: the flows check what the adapters share once, and each adapter only says how it spells them, in
 * one small map (`OptionNames`: the CLI's '--rounds', the Action's "input 'rounds'").
 */
import { UserError } from '../../../core/util/errors.js';

/** How an adapter spells each option a flow's check may name. */
export type OptionNames<K extends string> = Readonly<Record<K, string>>;

export class OptionError<K extends string = string> extends UserError {
  /** The option the refusal is about (the key of its OptionNames). */
  readonly option: K;

  constructor(option: K, message: string) {
    super(message);
    this.option = option;
  }
}
