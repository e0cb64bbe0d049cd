import os
import sys

import requests


def post(text):
    token = os.environ["SLACK_BOT_TOKEN"]
    response = requests.post(
        "https://slack.com/api/chat.postMessage",
        headers={
            "Authorization": f"Bearer {token}",
        },
        json={"channel": "#builds", "text": text},
        timeout=10,
    )
    response.raise_for_status()


if __name__ == "__main__":
    post(" ".join(sys.argv[1:]))
