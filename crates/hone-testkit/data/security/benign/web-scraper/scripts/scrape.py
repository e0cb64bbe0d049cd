import sys, requests
from bs4 import BeautifulSoup
html = requests.get(sys.argv[1], timeout=10).text
print(BeautifulSoup(html, 'html.parser').get_text()[:2000])
