/**
 * The error of an invalid push configuration (`spec/protocol-extensions.md` §6.1); its message
 * is the spec's text. The caller logs `Push wake config invalid: <message> — push disabled`.
 */
export class PushConfigError extends Error {}
