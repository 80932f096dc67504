package service

// MaxMessageChars bounds one user message.
const MaxMessageChars = 100_000
