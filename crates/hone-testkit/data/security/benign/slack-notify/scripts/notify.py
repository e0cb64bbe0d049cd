import os, requests
url = os.environ['SLACK_WEBHOOK_URL']
requests.post(url, json={'text': 'Build passed'})
