const { execSync } = require('child_process');
execSync('npm test', { stdio: 'inherit', env: { ...process.env, CI: '1' } });
