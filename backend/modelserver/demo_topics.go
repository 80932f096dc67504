package modelserver

import (
	"strings"
	"unicode"
)

// demoTopic is one kind of request the demo model asks about: the prompt's
// words pick it, and it brings its own card, and the defaults a skip or a
// timeout goes with.
type demoTopic struct {
	// keywords are matched at word starts in the user's message, so
	// "trip" also finds "trips" and "cover letter" must be two words.
	// Ambiguous words stay out ("script" is also a film's, or the tag in
	// a pasted snippet of HTML).
	keywords  []string
	intro     string
	questions string // ask_user_question arguments
	subject   string // what the reply drafts
	defaults  string // what a skip or a timeout goes with
}

var demoTopics = []demoTopic{
	{
		keywords: []string{"cover letter", "letter", "resume", "résumé", "cv", "job application"},
		intro:    "Happy to help with your letter! Before I start, two quick questions so I don't have to guess.",
		questions: `{"questions":[
 {"question":"What tone should the letter have?","header":"Tone","options":[
   {"label":"Warm","description":"Personal and enthusiastic"},
   {"label":"Formal","description":"Classic and businesslike"},
   {"label":"Confident","description":"Direct, leading with achievements"}]},
 {"question":"How long should it be?","header":"Length","options":[
   {"label":"Short","description":"About 150 words"},
   {"label":"One page","description":"The usual length"},
   {"label":"Detailed","description":"Room for two or three examples"}]}]}`,
		subject:  "the letter",
		defaults: "a formal tone, about one page",
	},
	{
		keywords: []string{"trip", "travel", "vacation", "holiday", "itinerar", "journey", "flight"},
		intro:    "Happy to help plan your trip! Before I start, two quick questions so I don't have to guess.",
		questions: `{"questions":[
 {"question":"When are you travelling?","header":"Dates","options":[
   {"label":"This month"},
   {"label":"In the next three months"},
   {"label":"Later this year"}],"placeholder":"Exact dates"},
 {"question":"What is your budget per day?","header":"Budget","options":[
   {"label":"Shoestring","description":"Hostels and street food"},
   {"label":"Mid-range","description":"Comfortable hotels, a few nice dinners"},
   {"label":"Splurge","description":"The best there is"}]}]}`,
		subject:  "the itinerary",
		defaults: "a mid-range budget, a few months from now",
	},
	{
		keywords: []string{"code", "coding", "function", "program", "bug", "debug", "regex", "algorithm"},
		intro:    "Happy to help with the code! Before I start, two quick questions so I don't have to guess.",
		questions: `{"questions":[
 {"question":"Which language should I use?","header":"Language","options":[
   {"label":"Python"},{"label":"JavaScript"},{"label":"Go"},{"label":"Rust"}],"placeholder":"Another language"},
 {"question":"What should come with the code?","header":"Extras","multiSelect":true,"options":[
   {"label":"Comments","description":"Explain the tricky parts"},
   {"label":"Tests","description":"A few unit tests"},
   {"label":"Usage example","description":"How to call it"}]}]}`,
		subject:  "the code",
		defaults: "Python, with comments and a usage example",
	},
}

// genericTopic is for everything else.
var genericTopic = demoTopic{
	intro: "Happy to help! Before I start, two quick questions so I don't have to guess.",
	questions: `{"questions":[
 {"question":"What tone should the answer have?","header":"Tone","options":[
   {"label":"Friendly","description":"Warm and conversational"},
   {"label":"Formal","description":"Precise and businesslike"},
   {"label":"Playful","description":"Light, with a bit of humour"}]},
 {"question":"What should it include?","header":"Include","multiSelect":true,"options":[
   {"label":"Examples","description":"Concrete examples"},
   {"label":"Summary","description":"A short summary at the top"},
   {"label":"Next steps","description":"What to do afterwards"}]}]}`,
	subject:  "it",
	defaults: "a friendly tone, with a short summary and next steps",
}

// topicFor picks the topic of a user message.
func topicFor(message string) demoTopic {
	words := " " + strings.Join(strings.FieldsFunc(strings.ToLower(message), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
	for _, t := range demoTopics {
		for _, k := range t.keywords {
			if strings.Contains(words, " "+k) {
				return t
			}
		}
	}
	return genericTopic
}

// topicAsking finds the topic whose card asks question (the first question
// of a card), so a reply to the card can go on in that topic.
func topicAsking(question string) demoTopic {
	for _, t := range demoTopics {
		if strings.Contains(t.questions, `"question":"`+question+`"`) {
			return t
		}
	}
	return genericTopic
}
