"""All markup: the one Jinja environment and its templates (`pages`; the room page among them),
Markdown escaping and tables (`markdown`), the PNG figures (`figures`), and the report's and the
leaderboard's pages (`report`, `leaderboard`). Each draws rows or figure data that `analysis`
computed; `publish` writes what they draw."""
