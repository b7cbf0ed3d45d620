"""The Slack adapter: a slack-bolt AsyncApp that turns Slack requests into quiz core calls and renders the
core's cards as Block Kit. Started by `studybot` when SLACK_BOT_TOKEN is set (see docs/slack.md)."""
