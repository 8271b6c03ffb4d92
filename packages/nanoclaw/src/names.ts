/** The names NanoClaw knows this channel and its own notices by. */

/** The adapter's name and channel type; NanoClaw user ids of its senders are `social-harness:<address>`. */
export const CHANNEL_TYPE = "social-harness";
/** The sender of what the daemon itself says: operation results, failures, send notices. */
export const DAEMON_SENDER = "Social Harness";
