function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += (i * 2654435761) % 7; return s; }
function warmLoop(n) { let s = 1; for (let i = 0; i < n; i++) s = (s * 31 + i) % 1000003; return s; }
function driver() { let t = 0; for (let k = 0; k < 60; k++) { t += hotLoop(3000000); t += warmLoop(1000000); } return t; }
console.log(driver());
