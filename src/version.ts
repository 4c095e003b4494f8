/** This copy's version, and the format of the realm-wide state it can share (see global.ts). */
export const VERSION = '0.1.0';
/** 2: the realm state gained `few` (the small enabled set every copy must keep current). */
export const STATE_FORMAT = 2;
