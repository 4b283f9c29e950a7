"""Play and watch Baohuang in a browser (`baohuang serve`): one Starlette app in one process.

The server owns every game (`sessions`); a page only ever gets its seat's view (`views`),
built from the same information model as the envs and text views (`baohuang_env.knowledge`,
`baohuang_env.text`, the seat's observation for hints). `replays` turns a replay file into
frames for the replay viewer; `app` is the routes. Needs the `web` extra
(`pip install -e ".[web]"`: Starlette and uvicorn).
"""
