// How much of a conversation's path the page reads (SPEC §7 window).

/**
 * The newest messages an open reads (`last`): more than the list renders at
 * first (MessageList's window), so a conversation of thousands of messages
 * opens at the cost of a short one. A switch of branch reads as many of
 * the new path. "Show earlier" reads the path back EARLIER_PAGE messages at
 * a time.
 */
export const OPEN_WINDOW = 200
export const EARLIER_PAGE = 300
