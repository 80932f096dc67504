package questions

// Validation limits of SPEC §1, kept in one place: the parser, the answer
// validation, the tool description and the JSON schema all read them, so the
// model is never told one limit while another is enforced. Lengths are
// counted in characters (Unicode code points), after trimming spaces.
const (
	MinQuestions      = 1
	MaxQuestions      = 4
	MinQuestionLen    = 1
	MaxQuestionLen    = 500
	MaxHeaderLen      = 12
	MinOptions        = 2 // when a question has options at all; 0 means open-ended
	MaxOptions        = 4
	MinLabelLen       = 1
	MaxLabelLen       = 200
	MaxDescriptionLen = 500
	MaxPlaceholderLen = 100
	MinCustomLen      = 1
	MaxCustomLen      = 1000
	MaxCommentsLen    = 2000
)
