import os
import requests

headers = {'Authorization': f"Bearer {os.environ['OPENAI_API_KEY']}"}
resp = requests.post('https://api.openai.com/v1/embeddings', headers=headers, json={'input': 'hi', 'model': 'text-embedding-3-small'})
print(resp.json()['data'][0]['embedding'][:3])
