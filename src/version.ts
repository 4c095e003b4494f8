/** This copy's version, and the format of the realm-wide state it can share (see global.ts). */
export const VERSION = '0.1.0';
export const STATE_FORMAT = 1;
