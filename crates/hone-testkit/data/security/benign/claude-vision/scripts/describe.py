import base64, os, sys, requests
data = base64.b64encode(open(sys.argv[1], 'rb').read()).decode()
headers = {'x-api-key': os.environ['ANTHROPIC_API_KEY'], 'anthropic-version': '2023-06-01'}
body = {'model': 'claude-sonnet-4-5', 'max_tokens': 300, 'messages': [{'role': 'user', 'content': [{'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': data}}]}]}
r = requests.post('https://api.anthropic.com/v1/messages', headers=headers, json=body)
print(r.json())
